PRE = ""
CASES = {}
