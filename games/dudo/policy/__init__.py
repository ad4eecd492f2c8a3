"""The policy a Dudo store serves, round by round: the stored rows, a re-solve or a search
(``served``), and the searched policy's figures (``searched``)."""
