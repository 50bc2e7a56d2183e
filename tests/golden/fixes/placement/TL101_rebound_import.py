# An imported name bound again means the new value from there on: the latest binding wins, as
# in Python (issue 46: `import foo` then `foo = torch.zeros(3)` hid the finding).
import foo
import torch

# Errors
foo = torch.zeros(3)
foo = foo.cuda()  # expect: TL101


def local_rebinding():
    import bar

    bar = torch.ones(2)
    bar = bar.to("cpu")  # expect: TL101


# OK
import baz

baz.cuda()  # the module's own function, not a tensor's method


def before_the_rebinding(qux):
    return qux.cuda()
