"""Live pushes: the WebSocket fan-out of every table's states, apart from the table logic."""
