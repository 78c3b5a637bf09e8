/**
 * Which cards are on screen and which have drawn: the page sets `document.body.dataset.chartsReady` to
 * "true" once every visible card is ready (tests and bench/ui.py wait on it). A card whose visibility has not
 * been reported yet (just mounted, e.g. a section scrolled near) keeps the page not ready until it is.
 */
class Registry {
  /** visible: null until the card's first intersection report. */
  private readonly cards = new Map<string, { visible: boolean | null; ready: boolean }>();
  private scheduled = false;

  add(id: string): void {
    if (!this.cards.has(id)) this.cards.set(id, { visible: null, ready: false });
    this.update();
  }
  remove(id: string): void {
    this.cards.delete(id);
    this.update();
  }
  setVisible(id: string, visible: boolean): void {
    const c = this.cards.get(id);
    if (c) c.visible = visible;
    this.update();
  }
  setReady(id: string, ready: boolean): void {
    const c = this.cards.get(id);
    // A card reports from a layout effect, before its passive effect has added it: add it (visibility unknown).
    if (c) c.ready = ready;
    else this.cards.set(id, { visible: null, ready });
    this.update();
  }
  private update(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      let ok = true;
      let anyVisible = false;
      for (const c of this.cards.values()) {
        if (c.visible) anyVisible = true;
        if (c.visible === null || (c.visible && !c.ready)) ok = false;
      }
      // Before the first intersection report no card counts as visible: not ready yet while cards exist.
      if (this.cards.size > 0 && !anyVisible) ok = false;
      document.body.dataset.chartsReady = ok ? "true" : "false";
    });
  }
}

export const registry = new Registry();
