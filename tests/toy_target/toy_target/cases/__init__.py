"""The toy target's cases: one folder per target (toy/), its revision files in revisions/."""
