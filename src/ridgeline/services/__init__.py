"""Read-only services over the provider, shared by the plugins, the CLI and the report: the alert monitor, the
diagnosis reader, histogram reading, the run listing. They read a :class:`~ridgeline.store.logdir.LogDir` and
know nothing of HTTP."""
