// The groceries service library; its helper replaces this placeholder.
