/** Moved to @charts/registry (shared by every dashboard); kept for imports not yet updated (hparams). */
export { registry } from "@charts/registry";
