### A resource comment is not kept.

## A group comment is not kept either.

# Attached comment,
# on two lines.
hello = Hello, { $name }!

multi = First line
      indented second line

    after a blank line
    .title = Title with {"{"}braces{"}"}
    .aria =
        {"["}starts with a bracket
        {"."}and a dot

spaces = {"  "}leading and trailing{"  "}
attrs-only =
    .label = Label
