"""Photo -> rectified grid -> cell crops -> recognised `Sheet`."""
