// The least a Swift process can do: start, run an async main that does nothing, exit. Built as
// `waypost` is (runtime linked in, not position-independent), it is the floor under `waypost open`.
@main
enum Floor {
    static func main() async {}
}
