"""Training and synthesis code for the cell model, and the committed model file."""
