// sous-planner; its helper replaces this placeholder.
