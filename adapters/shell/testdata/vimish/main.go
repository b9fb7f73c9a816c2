// Command vimish is a test fixture: a small full-screen program that, like
// vim, refuses to run without a terminal. It clears the screen, says READY
// and the terminal's size, then names every key it reads until q:
//
//	key: Up
//	key: C-c
//	paste: some text
//
// With -cooked it leaves the terminal as it is (line editing, Ctrl-C is a
// signal), echoes each line it reads, and on SIGINT says so and exits 3:
// proof that the terminal's Ctrl-C reached it.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

func main() {
	cooked := len(os.Args) > 1 && os.Args[1] == "-cooked"
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil || !isTerminal(1) {
		fmt.Fprintln(os.Stderr, "vimish: standard input is not a terminal")
		os.Exit(2)
	}
	if cooked {
		os.Exit(runCooked(ws))
	}
	os.Exit(runRaw(ws))
}

func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

func runCooked(ws *unix.Winsize) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT)
	fmt.Printf("READY %dx%d\n", ws.Col, ws.Row)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		select {
		case <-sigs:
			fmt.Println("got SIGINT")
			return 3
		case l, ok := <-lines:
			if !ok {
				fmt.Println("end of input")
				return 0
			}
			fmt.Printf("line: %s\n", l)
		}
	}
}

func runRaw(ws *unix.Winsize) int {
	old, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		return 2
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	raw.Iflag &^= unix.ICRNL | unix.IXON
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(0, unix.TCSETS, &raw); err != nil {
		return 2
	}
	defer func() { _ = unix.IoctlSetTermios(0, unix.TCSETS, old) }()
	// Clear the screen and home the cursor in colour, as a full-screen
	// program does.
	fmt.Printf("\x1b[2J\x1b[H\x1b[1;32mREADY %dx%d\x1b[0m\r\n", ws.Col, ws.Row)
	in := bufio.NewReader(os.Stdin)
	for {
		b, err := in.ReadByte()
		if err != nil {
			return 1
		}
		switch {
		case b == 'q':
			fmt.Print("bye\r\n")
			return 0
		case b == 0x1b:
			seq := readEscape(in)
			if len(seq) > 4 && seq[:4] == "[200" {
				fmt.Printf("paste: %s\r\n", readPaste(in))
				continue
			}
			fmt.Printf("key: %s\r\n", escapeName(seq))
		case b == '\r':
			fmt.Print("key: Enter\r\n")
		case b < 0x20:
			fmt.Printf("key: C-%c\r\n", b+'a'-1)
		default:
			fmt.Printf("key: %c\r\n", b)
		}
	}
}

// readEscape reads the rest of an escape sequence: "[A" for Up.
func readEscape(in *bufio.Reader) string {
	b, err := in.ReadByte()
	if err != nil || b != '[' && b != 'O' {
		return ""
	}
	seq := []byte{b}
	for {
		c, err := in.ReadByte()
		if err != nil {
			return string(seq)
		}
		seq = append(seq, c)
		if c >= 0x40 && c <= 0x7e {
			return string(seq)
		}
	}
}

func escapeName(seq string) string {
	switch seq {
	case "[A":
		return "Up"
	case "[B":
		return "Down"
	case "[C":
		return "Right"
	case "[D":
		return "Left"
	case "":
		return "Escape"
	}
	return "ESC" + seq
}

// readPaste reads up to the end-of-paste marker ESC [201~.
func readPaste(in *bufio.Reader) string {
	var text []byte
	for {
		b, err := in.ReadByte()
		if err != nil {
			return string(text)
		}
		if b == 0x1b {
			if seq := readEscape(in); seq == "[201~" {
				return string(text)
			}
			continue
		}
		text = append(text, b)
	}
}
