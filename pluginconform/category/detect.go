package category

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/agentconform/conform/pluginconform/launch"
)

// Detect launches the plugin once, tells its category from the services
// it serves, and stops it. The error says what the plugin did: it never
// handshook, serves no category conform checks (naming what it does
// serve), or serves more than one (then --category must choose).
func Detect(ctx context.Context, opt Options) (Category, error) {
	start := opt.StartTimeout
	if start <= 0 {
		start = 10 * time.Second
	}
	if opt.Multiplier > 1 {
		start = time.Duration(float64(start) * opt.Multiplier)
	}
	p, err := launch.Launch(ctx, launch.Spec{Argv: opt.Argv, Env: opt.Env, StartTimeout: start})
	if err != nil {
		return Category{}, &NotLaunched{Err: err}
	}
	defer p.Kill()
	call := 10 * time.Second
	if opt.CallTimeout > 0 {
		call = opt.CallTimeout
	}
	services, err := Served(ctx, p.Conn, call)
	if err != nil {
		return Category{}, err
	}
	found := ByService(services)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var want []string
		for _, c := range All() {
			want = append(want, c.Name+" ("+c.Service+")")
		}
		served := "nothing conform recognises"
		if len(services) > 0 {
			served = strings.Join(services, ", ")
		}
		return Category{}, fmt.Errorf("the plugin serves none of the categories conform checks: %s; it serves %s", strings.Join(want, ", "), served)
	default:
		var names []string
		for _, c := range found {
			names = append(names, c.Name)
		}
		return Category{}, fmt.Errorf("the plugin serves more than one category (%s): choose one with --category", strings.Join(names, ", "))
	}
}

// NotLaunched is a Detect that could not launch the plugin at all: its
// category is unknown, and the caller may still check it as a default
// category, whose report then says why nothing could be checked.
type NotLaunched struct{ Err error }

func (e *NotLaunched) Error() string { return e.Err.Error() }
func (e *NotLaunched) Unwrap() error { return e.Err }

// Served lists the gRPC services the plugin serves: from gRPC reflection
// when the plugin registers it (go-plugin does), else the registered
// categories' services that answer Describe with anything but
// Unimplemented.
func Served(ctx context.Context, conn *grpc.ClientConn, timeout time.Duration) ([]string, error) {
	if s, err := reflected(ctx, conn, timeout); err == nil {
		return s, nil
	}
	var out []string
	for _, c := range All() {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		err := conn.Invoke(cctx, "/"+c.Service+"/Describe", &emptypb.Empty{}, &emptypb.Empty{})
		cancel()
		switch status.Code(err) {
		case codes.Unimplemented:
		case codes.DeadlineExceeded:
			return nil, fmt.Errorf("the plugin did not answer %s/Describe within %v", c.Service, timeout)
		case codes.Unavailable:
			return nil, fmt.Errorf("the plugin's connection failed while asking %s/Describe: %v", c.Service, err)
		default:
			out = append(out, c.Service)
		}
	}
	return out, nil
}

func reflected(ctx context.Context, conn *grpc.ClientConn, timeout time.Duration) ([]string, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st, err := rpb.NewServerReflectionClient(conn).ServerReflectionInfo(cctx)
	if err != nil {
		return nil, err
	}
	if err := st.Send(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_ListServices{}}); err != nil {
		return nil, err
	}
	res, err := st.Recv()
	if err != nil {
		return nil, err
	}
	_ = st.CloseSend()
	ls := res.GetListServicesResponse()
	if ls == nil {
		return nil, errors.New("reflection answered no service list")
	}
	var out []string
	for _, s := range ls.GetService() {
		out = append(out, s.GetName())
	}
	slices.Sort(out)
	return out, nil
}
