"""Dashboards: one folder per plugin, registered with ``ridgeline.server.plugin_host`` like third-party ones."""
