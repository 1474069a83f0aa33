"""python3 -m ferry_agent: runs the agent with settings from the environment."""

import sys

from .agent import main

if __name__ == "__main__":
    sys.exit(main())
