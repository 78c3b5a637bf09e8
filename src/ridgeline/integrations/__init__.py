"""Native loggers for the frameworks users train with, thin adapters onto :class:`ridgeline.SummaryWriter`.

Each module imports its framework when it is imported itself, and nothing here is imported by ``ridgeline``:

- ``ridgeline.integrations.lightning.RidgelineLogger``: a Lightning 2.x logger (extra ``ridgeline[lightning]``);
- ``ridgeline.integrations.transformers.RidgelineCallback``: a Hugging Face ``Trainer`` callback
  (extra ``ridgeline[transformers]``), and ``ridgeline.integrations.accelerate.RidgelineTracker``;
- ``ridgeline.integrations.keras.RidgelineCallback``: a Keras 3 callback that needs no TensorFlow
  (extra ``ridgeline[keras]``).

See docs/integrations.md.
"""
