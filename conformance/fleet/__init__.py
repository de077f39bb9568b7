"""The fleet: every agent of a list (the ACP registry's format, or a TOML list of the suite's own)
installed into a cache of its own, certified by the suite's console script with a prompt budget and a
time limit, and joined into one fleet report with its history (``session-status-conformance fleet``).

``entries`` reads the list, ``install`` installs an entry, ``certify`` runs the suite on it,
``report`` writes fleet.json / fleet.md / fleet.html and the badges, ``command`` is the command line
(``fleet``, ``fleet plan``, ``fleet merge``).
"""
