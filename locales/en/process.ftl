### Description of the process tool: long shell commands in the background,
### scoped to the caller's session.

## process

tool-process = Run a long command line in the background and check on it later. start analyses the line exactly like the shell tool (same allowlist, risk tier and approval) and returns an id; poll waits up to wait_seconds for new output or exit; log reads a window of captured output; write sends text to standard input; kill ends every process of it; list shows this session's processes. The newest 1 MiB of each stream is kept; finished processes are forgotten after 10 minutes, and all of them end when talon exits.
tool-process-param-action = What to do: start, list, poll, log, write or kill.
tool-process-param-command = For start: the command line to run, as for the shell tool.
tool-process-param-id = The id returned by start, for poll, log, write and kill.
tool-process-param-wait-seconds = For poll: how long to wait for new output or exit, 0 to 30 seconds. Defaults to 5.
tool-process-param-stream = For log: stdout (default) or stderr.
tool-process-param-offset = For log: the byte offset to read from. Without it, log returns the newest output.
tool-process-param-limit = For log and poll: the most bytes to return per stream, up to 1 MiB. Defaults to 64 KiB.
tool-process-param-input = For write: the text to send to standard input.
tool-process-param-eof = For write: close standard input after the text, so the command sees the end of its input.
