public import Desktop
public import Planning
import Synchronization

/// What the user answered in the chooser.
public enum ChooserAnswer: Sendable, Equatable {
    case picked(ChooserPick)
    /// The user closed it without picking.
    case cancelled
    /// No chooser could be shown (no display, GTK missing, too many waiting): why.
    case unavailable(String)
}

/// The user's pick: where, whether to remember it, and the token the chooser obtained for it.
public struct ChooserPick: Sendable, Equatable {
    public var destination: NamedDestination
    /// "Always": remembered for the request's scope.
    public var always: Bool
    /// Remembered for the request's opener only.
    public var forOpenerOnly: Bool
    /// An activation token for the picked app's window, obtained at the pick.
    public var token: String?

    public init(destination: NamedDestination, always: Bool = false, forOpenerOnly: Bool = false, token: String? = nil) {
        (self.destination, self.always, self.forOpenerOnly, self.token) = (destination, always, forOpenerOnly, token)
    }
}

/// Shows the chooser window for a request and waits for the user's answer (`ChooserProcess`;
/// tests answer as a user would).
public protocol ChooserWindows: Sendable {
    /// - Parameter platformData: the opener's token, which the window is raised with.
    func ask(_ request: ChoiceRequest, platformData: LaunchPlatformData) async -> ChooserAnswer
}

/// One chooser on the screen at a time; further requests wait their turn, at most
/// `Budgets.waitingChoosers` of them (the rest are answered `unavailable` at once).
actor Choosers {
    let windows: (any ChooserWindows)?
    private var showing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ windows: (any ChooserWindows)?) { self.windows = windows }

    /// Requests waiting for the chooser on the screen to be answered.
    var waitingCount: Int { waiting.count }

    /// The user's answer to `request`, or nil when it did not come within `wait`: then `late` is
    /// told the answer when it comes (the caller was answered meanwhile).
    nonisolated func ask(
        _ request: ChoiceRequest, platformData: LaunchPlatformData, within wait: Duration,
        late: @escaping @Sendable (ChooserAnswer) -> Void
    ) async -> ChooserAnswer? {
        let first = FirstAnswer()
        // Ended once the answer came: only a wait that ran its course answers nil.
        let timer = Task {
            guard (try? await Task.sleep(for: wait)) != nil else { return }
            _ = first.give(nil)
        }
        Task {
            let answer = await self.ask(request, platformData: platformData)
            let inTime = first.give(answer)
            timer.cancel()
            if !inTime { late(answer) }
        }
        return await first.value
    }

    func ask(_ request: ChoiceRequest, platformData: LaunchPlatformData) async -> ChooserAnswer {
        guard let windows else { return .unavailable("no chooser window can be shown here") }
        if showing {
            guard waiting.count < Budgets.waitingChoosers else {
                return .unavailable("\(Budgets.waitingChoosers) choices are waiting for the user already")
            }
            await withCheckedContinuation { waiting.append($0) }
        }
        showing = true
        let answer = await windows.ask(request, platformData: platformData)
        if waiting.isEmpty { showing = false } else { waiting.removeFirst().resume() }
        return answer
    }
}

/// The first of two answers (the user's, or none when the wait is over); the second is refused.
private final class FirstAnswer: Sendable {
    private let state = Mutex<(given: Bool, answer: ChooserAnswer?, waiter: CheckedContinuation<ChooserAnswer?, Never>?)>((false, nil, nil))

    /// - Returns: whether this was the first.
    func give(_ answer: ChooserAnswer?) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<ChooserAnswer?, Never>?) in
            guard !state.given else { return (false, nil) }
            state.given = true
            state.answer = answer
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: answer)
        return first
    }

    var value: ChooserAnswer? {
        get async {
            await withCheckedContinuation { continuation in
                let given = state.withLock { state -> ChooserAnswer?? in
                    if state.given { return .some(state.answer) }
                    state.waiter = continuation
                    return .none
                }
                if let given { continuation.resume(returning: given) }
            }
        }
    }
}
