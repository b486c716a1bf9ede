// sous-notifier; its helper replaces this placeholder.
