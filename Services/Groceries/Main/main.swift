// sous-groceries; its helper replaces this placeholder.
