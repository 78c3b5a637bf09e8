"""Dashboards: one folder per plugin (its Python half, and its TypeScript half in ``web/``), registered through the
``ridgeline.plugins`` entry-point group like a third-party plugin (docs/plugins.md). ``kit`` is what they share."""
