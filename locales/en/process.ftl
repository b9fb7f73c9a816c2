### Description of the process tool: long shell commands in the background,
### scoped to the caller's session.

## process

tool-process = Check on and control the processes of this session that run in the background: lines started here or by the shell tool with background or yield_ms. start runs a line in the background, analysed exactly like the shell tool (same allowlist, risk tier and approval), and returns an id; poll waits up to wait_seconds for new output or exit and returns what is new; log reads a window of captured output; write sends text to standard input; send_keys types named keys (Enter, Tab, Escape, Up, C-c, ...) and paste pastes text into a program run with pty; kill ends every process of it; list shows this session's processes. The newest 1 MiB of each stream is kept; finished processes are forgotten after 10 minutes, and all of them end when talon exits.
tool-process-param-action = What to do: start, list, poll, log, write, send_keys, paste or kill.
tool-process-param-command = For start: the command line to run, as for the shell tool.
tool-process-param-workdir = For start: the directory to run in, relative to the workspace, as for the shell tool.
tool-process-param-env = For start: variables to set, as for the shell tool.
tool-process-param-timeout-seconds = For start: seconds after which the line is stopped; without it, it runs until it ends or is killed.
tool-process-param-pty = For start: run the command on a terminal, as for the shell tool.
tool-process-param-id = The id returned by start or by the shell tool, for poll, log, write, send_keys, paste and kill.
tool-process-param-wait-seconds = For poll: how long to wait for new output or exit, 0 to 30 seconds. Defaults to 5.
tool-process-param-stream = For log: stdout (default) or stderr.
tool-process-param-offset = For log: the byte offset to read from. Without it, log returns the newest output.
tool-process-param-limit = For log and poll: the most bytes to return per stream, up to 1 MiB. Defaults to 64 KiB.
tool-process-param-input = For write: the text to send to standard input.
tool-process-param-eof = For write: close standard input after the text, so the command sees the end of its input (on a terminal: send C-d).
tool-process-param-keys = For send_keys: the keys to type, in order: names like Enter, Tab, Escape, BSpace, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1 to F12, C-c (control), M-x (meta), or single characters. Send text with write or paste.
tool-process-param-text = For paste: the text to paste.
tool-process-param-bracketed = For paste: mark the text as pasted (bracketed paste) on a terminal, so the program does not take it for typing. Defaults to true.
