import Desktop
import Glibc
import Logging
import Planning

// The user's answer to a chooser, turned into a destination: remembered when they said "always",
// and carried out on its own when it came after the caller was answered.
extension Dispatcher {
    /// The destination the user picked, remembered for the request's scope (and opener) when
    /// they said "always".
    /// - Throws: `choiceCancelled`; `notChosen` when no chooser could be shown.
    nonisolated func settle(_ answer: ChooserAnswer, of request: ChoiceRequest, for label: String) throws(DispatchError) -> ChooserPick {
        switch answer {
        case .cancelled: throw .choiceCancelled(label)
        case .unavailable(let why):
            throw .notChosen(label, candidates: request.candidates.map(\.description), scope: request.scope.description, why: why)
        case .picked(let pick):
            if pick.always {
                let choice = RememberedChoice(
                    scope: request.scope, opener: pick.forOpenerOnly ? request.opener : nil, destination: pick.destination,
                    made: Self.today())
                do { try choices.remember(choice) } catch {
                    logger.error("the choice for \(request.scope) could not be remembered: \(error)")
                }
            }
            return pick
        }
    }

    /// Carries out a pick that came after the caller was answered "choose", reported as its own event.
    func carryLate(_ answer: ChooserAnswer, of request: ChoiceRequest, for event: Event) async {
        var event = event
        event.prepare = nil
        do {
            let pick = try settle(answer, of: request, for: event.label)
            event.picked = pick.destination
            if let token = pick.token { event.platformData = LaunchPlatformData(activationToken: token, desktopStartupID: token) }
        } catch {
            await reports.refused(event.label, error, opener: event.opener)
            return
        }
        _ = try? await carry(event.label, opener: event.opener) { () async throws(DispatchError) in event }
    }

    /// Today, `YYYY-MM-DD` in UTC, as a choice is dated.
    static func today() -> String { RememberedChoice.day(since: Int(time(nil))) }
}
