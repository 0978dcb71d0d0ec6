"""Command-line entry points. They import only the compiler stack (no pandas/altair/jupyter).

Every CLI module reads flashtune's data while it is imported (the catalog's vocabulary, the tiers for
--tier's choices), before any guard of its own runs. A FLASHTUNE_DATA that is not a data folder is therefore
checked here, when the first CLI module is imported (this package comes first), and ends the command with
one error line and exit code 2 instead of a traceback from whichever reader came first.
"""

import os
import sys

from flashtune.errors import FlashtuneError

if os.environ.get("FLASHTUNE_DATA"):
    from flashtune.paths import data_dir

    try:
        data_dir()
    except FlashtuneError as e:
        print(str(e), file=sys.stderr)
        raise SystemExit(2) from None
