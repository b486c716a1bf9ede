// Groceries tests; its helper replaces this placeholder.
