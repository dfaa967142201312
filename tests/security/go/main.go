// Command tlsclient is Apache Thrift's Go library (github.com/apache/thrift) as a TLS client
// of redbase's Thrift2 port, for tests/security/test_go.py. It creates a table, puts a row and
// reads it back, and prints "OK <value>"; on any error it prints "ERROR <error>" and exits 2.
//
//	tlsclient -addr 127.0.0.1:9091 -ca ca.crt [-cert c.crt -key c.key] [-plaintext] -table t
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"redbase.example/sdks/go/hbase2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9091", "Thrift2 address")
	caFile := flag.String("ca", "", "PEM CA that signs the server certificate")
	certFile := flag.String("cert", "", "PEM client certificate (its CN is the identity)")
	keyFile := flag.String("key", "", "PEM key of -cert")
	plaintext := flag.Bool("plaintext", false, "connect without TLS")
	table := flag.String("table", "go_tls", "table to create")
	flag.Parse()
	value, err := run(*addr, *caFile, *certFile, *keyFile, *plaintext, *table)
	if err != nil {
		var ioe *hbase2.TIOError
		if errors.As(err, &ioe) && ioe.Message != nil {
			fmt.Printf("ERROR TIOError: %s\n", *ioe.Message)
		} else {
			fmt.Printf("ERROR %v\n", err)
		}
		os.Exit(2)
	}
	fmt.Printf("OK %s\n", value)
}

func run(addr, caFile, certFile, keyFile string, plaintext bool, table string) (string, error) {
	conf := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: 20 * time.Second}
	var socket thrift.TTransport
	if plaintext {
		socket = thrift.NewTSocketConf(addr, conf)
	} else {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return "", err
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return "", fmt.Errorf("no certificate in %s", caFile)
		}
		conf.TLSConfig = &tls.Config{RootCAs: roots, ServerName: "localhost"}
		if certFile != "" {
			pair, err := tls.LoadX509KeyPair(certFile, keyFile)
			if err != nil {
				return "", err
			}
			// Always offered, even when its issuer is not among the CAs the server names, so
			// a certificate from another CA reaches the server's check.
			conf.TLSConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
				return &pair, nil
			}
		}
		socket = thrift.NewTSSLSocketConf(addr, conf)
	}
	transport := thrift.NewTBufferedTransport(socket, 8192)
	if err := transport.Open(); err != nil {
		return "", err
	}
	defer transport.Close()
	client := hbase2.NewTHBaseServiceClientFactory(transport, thrift.NewTBinaryProtocolFactoryConf(conf))
	ctx := context.Background()
	name := &hbase2.TTableName{Ns: []byte("default"), Qualifier: []byte(table)}
	desc := &hbase2.TTableDescriptor{
		TableName: name,
		Columns:   []*hbase2.TColumnFamilyDescriptor{{Name: []byte("f")}},
	}
	if err := client.CreateTable(ctx, desc, nil); err != nil {
		return "", err
	}
	put := &hbase2.TPut{Row: []byte("r1"), ColumnValues: []*hbase2.TColumnValue{
		{Family: []byte("f"), Qualifier: []byte("q"), Value: []byte("from go")},
	}}
	if err := client.Put(ctx, []byte(table), put); err != nil {
		return "", err
	}
	got, err := client.Get(ctx, []byte(table), &hbase2.TGet{Row: []byte("r1")})
	if err != nil {
		return "", err
	}
	if len(got.ColumnValues) != 1 {
		return "", fmt.Errorf("get returned %d cells", len(got.ColumnValues))
	}
	return string(got.ColumnValues[0].Value), nil
}
