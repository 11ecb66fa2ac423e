"""`python -m sampan.serving --model PATH [...]`: serve a saved model over HTTP."""
import sys

from .server import main

sys.exit(main())
