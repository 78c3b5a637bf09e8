/**
 * A built-in dashboard whose component is a chunk of its own (see {@link DashboardEntry}): the shell's bundle
 * holds only its tab, and the component's code is fetched the first time the tab is shown, or earlier through
 * {@link Dashboard.preload} (main.tsx preloads the tab the page opens on; boot.js has the browser fetch that
 * tab's chunk in parallel with the shell's). Once loaded, the component renders at once, with no placeholder.
 */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Dashboard, DashboardEntry, DashboardProps } from "./types";

type Loaded = ComponentType<DashboardProps>;

export function lazyDashboard(entry: DashboardEntry): Dashboard {
  let loaded: Loaded | null = null;
  let pending: Promise<Loaded> | null = null;
  const preload = (): Promise<Loaded> => {
    pending ??= entry.load().then((component) => (loaded = component));
    return pending;
  };

  function LazyDashboard(props: DashboardProps) {
    // Whether this instance has seen the component arrive (a component is a function: never a state's value,
    // which useState would call as an initialiser).
    const [, setArrived] = useState(false);
    const [failure, setFailure] = useState<string | null>(null);
    if (!loaded) void preload().catch(() => undefined); // the effect below reports a failure
    useEffect(() => {
      if (loaded) return;
      let live = true;
      preload().then(
        () => live && setArrived(true),
        (err: unknown) => {
          // A failed import() is not retried by the browser: the next preload() asks again.
          pending = null;
          if (live) setFailure(err instanceof Error ? err.message : String(err));
        },
      );
      return () => {
        live = false;
      };
    }, []);
    if (failure) {
      return (
        <div class="banner banner-error" role="alert" data-testid="dashboard-load-failed">
          The {entry.title} dashboard's code could not be loaded ({failure}): reload the page (the server may have
          been upgraded since it was opened).
        </div>
      );
    }
    if (!loaded) {
      return (
        <p class="loading muted" aria-busy="true" data-testid="dashboard-loading">
          Loading {entry.title}…
        </p>
      );
    }
    const Component = loaded;
    return <Component {...props} />;
  }
  LazyDashboard.displayName = `Lazy(${entry.name})`;

  const { name, title, order, hasData } = entry;
  return { name, title, order, hasData, component: LazyDashboard, preload };
}
