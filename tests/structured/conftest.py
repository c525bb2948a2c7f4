"""Make the helper modules of this directory (oracle, strategies) importable by the tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
