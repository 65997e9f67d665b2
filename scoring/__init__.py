"""Pure scoring rules for Cartographers map sheets (no image or ONNX code here)."""
