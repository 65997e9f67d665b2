"""Photo -> rectified grid -> cell crops -> recognised `Sheet`."""

import warnings

# Pillow warns while reading a damaged file ("Corrupt EXIF data", a TIFF's bad tags)
# before it fails or decodes it: the file is refused, or read, with one line of ours.
# Here, so that the filter is in place whichever of our modules opens a file first.
warnings.filterwarnings("ignore", category=UserWarning, module=r"PIL\.")
