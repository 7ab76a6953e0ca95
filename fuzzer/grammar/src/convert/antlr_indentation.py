# The line structure of @GRAMMAR@'s lexer, for ANTLR's Python 3 target. Written by
# `bonsai grammar convert --to antlr` next to @GRAMMAR@.g4, which imports it; regenerate both
# together rather than edit either.
#
# Bonsai's grammar marks blocks with INDENT and DEDENT, which no lexer rule can match: they stand
# for a change of indentation from one line to the next. @GRAMMAR@.g4 makes `next_token` its
# lexer's nextToken, which reads the line structure the way Bonsai's own parser does (Python's
# tokenizer without implicit line joining): every line holding a token ends in NEWLINE, the last
# one too; a line indented deeper than the innermost open level opens a level with INDENT, a
# shallower one closes levels with one DEDENT each; blank lines are nothing; the end of the input
# closes every open level. Indentation is measured in columns, a tab advancing to the next
# multiple of 8. A line that returns to a width between two open levels closes the deeper one
# and opens its own, which the parser then refuses where the grammar has no INDENT.
#
# INDENT and DEDENT tokens carry one marker character each, the text of their lexer rules, which
# never occurs in input. A tool that rebuilds text by joining tokens (picireny does, and puts a
# space or a line break where the original had any whitespace) loses the indentation, which is
# in no token; the markers keep where it changed, and `layout` turns such text back into
# indented lines.

from antlr4.Lexer import Lexer
from antlr4.Token import Token

# One level of indentation, as the grammar's %indent gives it.
UNIT = @UNIT@
INDENT_MARK = '\x0e'
DEDENT_MARK = '\x0f'
TAB_STOP = 8


def columns(indentation):
    """The width of a line's leading blanks."""
    width = 0
    for ch in indentation:
        width = (width // TAB_STOP + 1) * TAB_STOP if ch == '\t' else width + 1
    return width


def next_token(lexer):
    """The lexer's nextToken: the tokens of its rules, with NEWLINE, INDENT and DEDENT decided
    by the line structure."""
    structure = lexer.__dict__.get('_bonsai_line_structure')
    if structure is None:
        structure = lexer._bonsai_line_structure = LineStructure(lexer)
    return structure.next()


class LineStructure:
    """The open indentation levels of one lexer, and the tokens decided but not yet handed
    out (a line break can decide several at once)."""

    def __init__(self, lexer):
        self.lexer = lexer
        self.kinds = type(lexer)
        self.levels = [0]
        self.ready = []
        # No token on the current line yet.
        self.line_start = True
        # The width of the current line's indentation, once a line break has shown it; the
        # first line's comes from its first token's column.
        self.indentation = None

    def next(self):
        while not self.ready:
            self.read(Lexer.nextToken(self.lexer))
        return self.ready.pop(0)

    def read(self, token):
        if token.type == self.kinds.NEWLINE:
            # The rule's text is the line break, any blank lines after it, and the next
            # line's indentation.
            if not self.line_start:
                self.ready.append(derived(token, self.kinds.NEWLINE, '\n'))
                self.line_start = True
            text = token.text
            self.indentation = columns(text[text.rfind('\n') + 1:])
        elif token.type == Token.EOF:
            if not self.line_start:
                self.ready.append(derived(token, self.kinds.NEWLINE, '\n'))
                self.line_start = True
            while len(self.levels) > 1:
                self.levels.pop()
                self.ready.append(derived(token, self.kinds.DEDENT, DEDENT_MARK))
            self.ready.append(token)
        else:
            if self.line_start:
                width = token.column if self.indentation is None else self.indentation
                self.indent_to(width, token)
                self.line_start = False
            self.ready.append(token)

    def indent_to(self, width, token):
        while width < self.levels[-1]:
            self.levels.pop()
            self.ready.append(derived(token, self.kinds.DEDENT, DEDENT_MARK))
        if width > self.levels[-1]:
            self.levels.append(width)
            self.ready.append(derived(token, self.kinds.INDENT, INDENT_MARK))


def derived(at, kind, text):
    """A token of `kind` with `text`, placed where `at` is."""
    token = at.clone()
    token.type = kind
    token.text = text
    token.channel = Token.DEFAULT_CHANNEL
    return token


def layout(text):
    """Text whose indentation changes are only INDENT and DEDENT markers (however the lines are
    indented), as lines indented by UNIT per open level. Markers before a line's first
    character apply to that line; any others to the lines after it. Lines left blank are
    dropped, and every line ends in a line break."""
    marks = INDENT_MARK + DEDENT_MARK
    lines = []
    level = 0
    for line in text.split('\n'):
        content = line.lstrip(' \t\f' + marks)
        level = shifted(level, line[:len(line) - len(content)])
        rest = content.replace(INDENT_MARK, '').replace(DEDENT_MARK, '').rstrip()
        if rest:
            lines.append(UNIT * level + rest + '\n')
        level = shifted(level, content)
    return ''.join(lines)


def shifted(level, text):
    for ch in text:
        if ch == INDENT_MARK:
            level += 1
        elif ch == DEDENT_MARK:
            level = max(0, level - 1)
    return level
