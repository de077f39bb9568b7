"""The toy protocol: JSON-RPC 2.0 over stdio, one object a line. ``toy/hello`` says who the server
is and what it offers, ``toy/open`` opens a session, ``toy/status`` tells a session's state."""
