// sous-tracker; its helper replaces this placeholder.
