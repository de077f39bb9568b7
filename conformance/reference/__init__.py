"""Reference implementations: the systems under test the suite certifies, one folder per
protocol. They import nothing from the harness, so each folder can be copied on its own."""
