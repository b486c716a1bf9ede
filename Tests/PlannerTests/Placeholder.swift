// Planner tests; its helper replaces this placeholder.
