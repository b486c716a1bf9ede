// Notifier tests; its helper replaces this placeholder.
