import sys

from jdwpd.cli.main import main

sys.exit(main())
