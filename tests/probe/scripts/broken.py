# confirm fixture: does not parse, so it cannot be run.
def f(:
    pass
