/** Keeps one dashboard's rendering error inside its area, with the message, instead of blanking the page. */
import { Component, type ComponentChildren } from "preact";

export class ErrorBoundary extends Component<{ name: string; children: ComponentChildren }, { error: Error | null }> {
  override state = { error: null as Error | null };

  override componentDidCatch(error: unknown): void {
    this.setState({ error: error instanceof Error ? error : new Error(String(error)) });
  }

  override render() {
    if (this.state.error) {
      return (
        <div class="banner banner-error" role="alert">
          The {this.props.name} dashboard failed: {this.state.error.message}
        </div>
      );
    }
    return this.props.children;
  }
}
