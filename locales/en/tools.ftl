### Descriptions of talon's built-in tools and their parameters, as the model sees them.
### Ids: tool-<name> for a tool and tool-<name>-param-<param> for each parameter,
### with "_" written as "-" (file_read -> tool-file-read).

## file_read

tool-file-read = Read a UTF-8 text file in the workspace and return its lines prefixed with line numbers. Binary files and paths outside the workspace are refused, and output is capped, so read long files in parts with offset and limit.
tool-file-read-param-path = Path of the file, relative to the workspace root; an absolute path must point inside the workspace.
tool-file-read-param-offset = Line number to start reading at, counting from 1. Defaults to the first line.
tool-file-read-param-limit = Maximum number of lines to return.

## glob_search

tool-glob-search = Find files whose paths match a glob pattern, such as every Go file under a directory. Returns matching paths inside the workspace, at most max_results of them; to search inside files, use content_search.
tool-glob-search-param-pattern = Glob pattern in doublestar syntax: * matches within one path segment and ** matches any number of directories, as in **/*.go.
tool-glob-search-param-path = Directory to search from, inside the workspace. Defaults to the workspace root.
tool-glob-search-param-max-results = Maximum number of paths to return.

## content_search

tool-content-search = Search the contents of files in the workspace for a regular expression and return the matching lines with their paths and line numbers. Narrow the search with path and include; at most max_results lines are returned.
tool-content-search-param-pattern = Regular expression in RE2 syntax, as used by Go: no backreferences or lookaround.
tool-content-search-param-path = File or directory to search, inside the workspace. Defaults to the workspace root.
tool-content-search-param-include = Glob patterns that limit which files are searched, for example ["*.go", "docs/**/*.md"].
tool-content-search-param-context = Number of lines to show before and after each match. Defaults to 0.
tool-content-search-param-case-sensitive = Whether upper and lower case must match exactly. Defaults to true; set false to ignore case.
tool-content-search-param-max-results = Maximum number of matching lines to return.

## calculator

tool-calculator = Evaluate an arithmetic or logical expression and return its value. Use it whenever a number has to be right rather than working it out yourself; it cannot read files, reach the network or run programs.
tool-calculator-param-expression = Expression to evaluate, such as (3 + 4) * 2, sqrt(2) or max(1, 5) > 3. Supports + - * / % and ** (power), comparisons, and/or/not, the constants pi and e, and functions such as sqrt, min, max, abs, round, floor, ceil, pow, log (natural), log10 and log2.

## shell

tool-shell = Run one command line in the workspace and return its exit code and output. The line is analyzed before it runs: policy may refuse it or ask a person to approve it, and what runs is the argument list shown, started directly rather than through a shell. Prefer the file and search tools for reading, searching and editing files.
tool-shell-param-command = The command line to run, such as git status --short. Write plain commands and arguments: command substitution, variable expansion and redirection into files count as high risk.
tool-shell-param-timeout-seconds = Seconds to wait before the command is stopped. Uses the configured default in the foreground; a line in the background has no timeout unless you give one.
tool-shell-param-workdir = The directory to run in, relative to the workspace (default: the workspace itself). It must stay inside the workspace.
tool-shell-param-env = Variables to set for every command of the line, as an object of names and string values. Only the variables a command line may set itself are accepted: LANG, LANGUAGE, LC_*, TZ, TERM, COLUMNS, LINES, NO_COLOR, CLICOLOR, CLICOLOR_FORCE and FORCE_COLOR.
tool-shell-param-background = Start the line and return at once with a process id; read its output and control it with the process tool. You are told when it ends.
tool-shell-param-yield-ms = Run in the foreground for up to this many milliseconds; if the line is still running then, it goes on in the background and you get its process id and the output so far.
tool-shell-param-pty = Run the command on a terminal, for programs that need one (full-screen and interactive programs). Its output arrives without colour and cursor codes; drive it with the process tool's send_keys.

## file_write

tool-file-write = Write text to a file in the workspace, replacing the file if it exists. The write is atomic, and missing parent directories inside the workspace are created. To change part of an existing file, use file_edit instead.
tool-file-write-param-path = Path of the file to write, relative to the workspace root.
tool-file-write-param-content = The complete new content of the file.

## file_edit

tool-file-edit = Replace old_string with new_string in a file in the workspace. old_string must match the file exactly, whitespace and indentation included, and must occur only once unless replace_all is true; read the file first and copy the text from it.
tool-file-edit-param-path = Path of the file to edit, relative to the workspace root.
tool-file-edit-param-old-string = The exact text to replace, copied from the file with enough surrounding lines to make it unique.
tool-file-edit-param-new-string = The text to put in its place.
tool-file-edit-param-replace-all = Replace every occurrence instead of requiring exactly one. Defaults to false.

## echo (test builds only)

tool-echo = Return the arguments unchanged. Present only in builds with the testtools feature, for tests and benchmarks.
