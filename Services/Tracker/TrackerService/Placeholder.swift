// The tracker service library; its helper replaces this placeholder.
