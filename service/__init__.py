"""batayo: an event-sourced card-game service."""
