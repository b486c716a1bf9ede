// Tracker tests; its helper replaces this placeholder.
