"""Shared by every panel: workers (QObject in QThread), background jobs, theme, settings,
dialogs, icons and the plot grid."""
