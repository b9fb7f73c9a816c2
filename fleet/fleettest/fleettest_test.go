package fleettest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestClusterSurvivesAKill(t *testing.T) {
	url := Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (n int); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	c := Shared(t)
	c.Kill()
	if err := conn.Ping(ctx); err == nil {
		t.Fatal("a connection outlived the kill")
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	conn2, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close(ctx)
	var n int
	if err := conn2.QueryRow(ctx, "SELECT n FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the restart: %d, %v", n, err)
	}
	bad := "postgres://" + Superuser + ":wrong@127.0.0.1:" + itoa(c.Port) + "/postgres?sslmode=disable"
	if _, err := pgx.Connect(ctx, bad); err == nil {
		t.Fatal("a wrong password connected")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
