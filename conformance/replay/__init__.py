"""Replay files of failing sequences, replaying them, and reproductions piped into a fresh agent."""
