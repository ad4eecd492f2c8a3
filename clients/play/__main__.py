import sys

from clients.play import main

sys.exit(main())
