"""Photo -> rectified grid -> cell crops -> recognised `Sheet`."""

import warnings

# Pillow warns while reading a damaged file ("Corrupt EXIF data", a TIFF's bad tags) or a
# large one (a decompression bomb, by its own limit) before it fails or decodes it: the
# file is refused, or read, with one line of ours. Filtered here, once, so that the filter
# is in place whichever of our modules opens a file first (``warnings.catch_warnings``
# around each decode would not be thread-safe: ``score`` decodes ahead in a thread).
warnings.filterwarnings("ignore", category=Warning, module=r"PIL\.")
