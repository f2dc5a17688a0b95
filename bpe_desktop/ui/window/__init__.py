"""The main window and what belongs to it rather than to one panel: the model document,
autosave and recovery, the import/export menus, the status bar, help, the smoke test."""
