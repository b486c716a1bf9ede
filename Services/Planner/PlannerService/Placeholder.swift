// The planner service library; its helper replaces this placeholder.
