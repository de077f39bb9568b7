"""What a run writes: report.json and its renderings (HTML, Markdown, JUnit, badge), baselines, the
matrix."""
