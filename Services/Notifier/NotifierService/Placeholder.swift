// The notifier service library; its helper replaces this placeholder.
