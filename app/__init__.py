"""Command-line support: loading inputs into Sheets and writing reports."""
