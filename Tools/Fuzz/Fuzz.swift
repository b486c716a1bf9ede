import Foundation
import MessagePack
import SousSchema
import SousWire

// libFuzzer's entry points; its own `main` runs them (build.sh links with `-sanitize=fuzzer`).

/// Every decode and encode below also runs through `Codable`: a difference stops the process
/// (MessagePack's own check, as the test script runs it).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    setenv("SOUS_MESSAGEPACK_CHECK", "1", 1)
    // libFuzzer reports a crash and keeps its input; Swift's backtracer would run first and
    // read the stack in a way AddressSanitizer reports as a fault of its own.
    setenv("SWIFT_BACKTRACE", "enable=no", 1)
    return 0
}

/// The first byte picks what the rest is: a request message after a routing envelope (0–7), a
/// reply as a client reads it (8–11), an event as a subscriber reads it (12–15), or the body of
/// one schema type.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let selector = Int(data[0])
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if selector < 8 {
        readRequest(input)
    } else if selector < 12 {
        readReply(input)
    } else if selector < 16 {
        readEvent(input)
    } else {
        schemaChecks[(selector - 16) % schemaChecks.count](input)
    }
    return 0
}

/// Stops the run: libFuzzer reports a crash as a finding and keeps the input that caused it
/// (MessagePack's own coding check stops the same way).
func finding(_ what: String) -> Never {
    fatalError("fuzz finding: \(what)")
}

/// A request as a ROUTER receives it. What parses must be readable again from its own frames.
func readRequest(_ message: [UInt8]) {
    guard case .request(_, let header, let body) = Envelope.parseRequest([[0, 1, 2, 3], [], message]) else { return }
    guard let frames = try? Envelope.requestFrames(header, body: body) else { finding("a parsed header does not encode: \(header)") }
    guard case .request(_, let again, let againBody) = Envelope.parseRequest([[0, 1, 2, 3]] + frames), again == header, againBody == body
    else { finding("a request read, written and read again changed: \(header)") }
}

/// A reply as a client reads it, its body read as the error or as a recipe, as its status says.
func readReply(_ message: [UInt8]) {
    guard let reply = try? Envelope.parseReply([[], message]) else { return }
    _ = try? reply.decode(RecipeDetail.self)
    guard let frames = try? Envelope.replyFrames(routing: [], header: reply.header, body: reply.body),
        let again = try? Envelope.parseReply(frames), again.header == reply.header, again.body == reply.body
    else { finding("a reply read, written and read again changed: \(reply.header)") }
}

/// An event as a subscriber reads it (its topic frame, then the message).
func readEvent(_ message: [UInt8]) {
    let topic = message.prefix { $0 != 0 }
    _ = try? Envelope.parseEvent([Array(topic), Array(message.dropFirst(topic.count + 1))])
}

/// Bytes decoded as `T` as a request (NUL refused) and as a reply: whatever is accepted must be
/// written and read back to the same bytes.
func check<T: Codable & Sendable>(_ type: T.Type) -> @Sendable ([UInt8]) -> Void {
    { bytes in
        for decoder in [MessagePackDecoder.requests, MessagePackDecoder()] {
            guard let value = try? decoder.decode(T.self, from: bytes) else { continue }
            let encoder = MessagePackEncoder()
            guard let written = try? encoder.encode(value) else { finding("\(T.self) was read but cannot be written") }
            guard let again = try? decoder.decode(T.self, from: written) else { finding("\(T.self) cannot read what it wrote") }
            guard (try? encoder.encode(again)) == written else { finding("\(T.self) read back differs from what was written") }
        }
    }
}

let schemaChecks: [@Sendable ([UInt8]) -> Void] = [
    check(Access.self),
    check(AccountDeleted.self),
    check(AccountDeletion.self),
    check(AccountInfo.self),
    check(AccountRole.self),
    check(ActivityEvent.self),
    check(AddListItem.self),
    check(AddRecipeToList.self),
    check(Allergen.self),
    check(Appliance.self),
    check(ArchiveImported.self),
    check(ArchivedDrinks.self),
    check(ArchivedGoals.self),
    check(ArchivedListItem.self),
    check(ArchivedListLine.self),
    check(ArchivedListRecipe.self),
    check(ArchivedRecipe.self),
    check(ArchivedSelection.self),
    check(BarcodeLookup.self),
    check(CalendarExport.self),
    check(CalendarRequest.self),
    check(CatalogArchive.self),
    check(CatalogArchiveImport.self),
    check(CatalogChanges.self),
    check(ChangesSince.self),
    check(CheckLines.self),
    check(Checkout.self),
    check(ClearList.self),
    check(ClockReading.self),
    check(ClockSetting.self),
    check(CommunityPage.self),
    check(CommunityRecipe.self),
    check(CookedResult.self),
    check(CookingProfile.self),
    check(DailySummary.self),
    check(DatabaseHealth.self),
    check(DateRange.self),
    check(DiaryStatusBatch.Day.self),
    check(DayRequest.self),
    check(DayTotals.self),
    check(DeliveryAddress.self),
    check(DiaryAdd.self),
    check(DiaryAnalysis.self),
    check(DiaryDay.self),
    check(DiaryEdit.self),
    check(DiaryEntry.self),
    check(DiaryEntryEvent.self),
    check(DiaryExport.self),
    check(DiaryHistory.self),
    check(DiaryStatus.self),
    check(DiaryStatusBatch.self),
    check(DiaryStatusRequest.self),
    check(DiaryStatuses.self),
    check(Diet.self),
    check(DietFact.self),
    check(DishType.self),
    check(Drink.self),
    check(DrinkChange.self),
    check(DrinkCounts.self),
    check(Empty.self),
    check(EntryID.self),
    check(EntrySource.self),
    check(EntrySourceKind.self),
    check(ErasureReport.self),
    check(ErrorCode.self),
    check(EventHeader.self),
    check(FilledSlot.self),
    check(FilterSwitches.self),
    check(GlutenBadge.self),
    check(GlutenCalendar.self),
    check(GlutenCalendarDay.self),
    check(GlutenCalendarRequest.self),
    check(GlutenDay.self),
    check(GlutenDayStatus.self),
    check(GlutenEvent.self),
    check(GlutenPredictionRequest.self),
    check(GlutenResultRecorded.self),
    check(GlutenResultRemoval.self),
    check(GlutenResultRequest.self),
    check(GlutenStats.self),
    check(GoalPreset.self),
    check(GoalPresets.self),
    check(Goals.self),
    check(GoalsChange.self),
    check(GoalsInForce.self),
    check(GroceriesArchive.self),
    check(GroceriesArchiveImport.self),
    check(GroceriesChangedEvent.self),
    check(GroceryCategoryGroup.self),
    check(GroceryLine.self),
    check(GroceryLineSource.self),
    check(GroceryList.self),
    check(GroceryListChange.self),
    check(GroceryOrder.self),
    check(HealthReport.self),
    check(ImportReport.self),
    check(ImportedRecipe.self),
    check(Ingredient.self),
    check(IngredientIDs.self),
    check(IngredientImport.self),
    check(IngredientList.self),
    check(IngredientSearch.self),
    check(IngredientUse.self),
    check(JournalChange.self),
    check(JournalEdit.self),
    check(JournalEntry.self),
    check(JournalEntryDetail.self),
    check(JournalEntryDraft.self),
    check(JournalEntryID.self),
    check(JournalEvent.self),
    check(JournalList.self),
    check(JournalQuery.self),
    check(KcalRange.self),
    check(Barcode.Kind.self),
    check(WireShape.Kind.self),
    check(ListRecipe.self),
    check(MacroSplit.self),
    check(Macros.self),
    check(Meal.self),
    check(MealGroup.self),
    check(MeasureUnit.self),
    check(MethodDescription.self),
    check(MethodLane.self),
    check(NextReminder.self),
    check(NextReminderStatus.self),
    check(NotifierArchive.self),
    check(NotifierArchiveImport.self),
    check(Nutrition.self),
    check(OrderHistory.self),
    check(OrderLine.self),
    check(OrderQuery.self),
    check(PasswordChange.self),
    check(PasswordChanged.self),
    check(PlanChangedEvent.self),
    check(PlanDateRange.self),
    check(PlanDay.self),
    check(PlanDays.self),
    check(PlanFill.self),
    check(PlanFillRef.self),
    check(PlanFillResult.self),
    check(PlanSelection.self),
    check(PlanSlot.self),
    check(PlanUnfillResult.self),
    check(PlannedRecipe.self),
    check(PlannerArchive.self),
    check(PlannerArchiveImport.self),
    check(Price.self),
    check(PriceUnit.self),
    check(Product.self),
    check(ProductImport.self),
    check(ProductImportResult.self),
    check(ProfileChangedEvent.self),
    check(ProfileUpdate.self),
    check(RecentFood.self),
    check(RecentFoods.self),
    check(RecipeDetail.self),
    check(RecipeDraft.self),
    check(RecipeEdit.self),
    check(RecipeEvent.self),
    check(RecipeFilterProfile.self),
    check(RecipeHousehold.self),
    check(RecipeID.self),
    check(RecipeImport.self),
    check(RecipeImportReport.self),
    check(RecipeIngredient.self),
    check(RecipeIngredientDetail.self),
    check(RecipeList.self),
    check(RecipeLookup.self),
    check(RecipeOrigin.self),
    check(RecipePage.self),
    check(RecipePhoto.self),
    check(RecipePhotoInfo.self),
    check(RecipeSearch.self),
    check(RecipeServingLog.self),
    check(RecipeStep.self),
    check(RecipeSuggestion.self),
    check(RecipeSuggestionRequest.self),
    check(RecipeSuggestions.self),
    check(RecipeSummary.self),
    check(Registration.self),
    check(Reminder.self),
    check(ReminderFeed.self),
    check(ReminderLog.self),
    check(ReminderLogEntry.self),
    check(ReminderLogRequest.self),
    check(ReminderOutcome.self),
    check(ReminderWait.self),
    check(RemoveListItem.self),
    check(RemoveListRecipe.self),
    check(RenumberedEntry.self),
    check(ReplyHeader.self),
    check(ReplyStatus.self),
    check(RequestHeader.self),
    check(ResolvedDay.self),
    check(Revocations.self),
    check(RevocationsSince.self),
    check(RevokedSession.self),
    check(SavedFood.self),
    check(SavedFoodDraft.self),
    check(SavedFoodEdit.self),
    check(SavedFoodFilter.self),
    check(SavedFoodList.self),
    check(SavedFoodLog.self),
    check(SeedReport.self),
    check(SelectedRecipe.self),
    check(ServiceDescription.self),
    check(ServiceError.self),
    check(SessionInfo.self),
    check(SessionList.self),
    check(SessionRef.self),
    check(SessionsRevokedEvent.self),
    check(SetListRecipe.self),
    check(ShoppingCategory.self),
    check(SignIn.self),
    check(SignedIn.self),
    check(SlotAssignment.self),
    check(SlotMove.self),
    check(SlotRef.self),
    check(StepType.self),
    check(SuggestedMultiplier.self),
    check(TrackerArchive.self),
    check(TrackerArchiveImport.self),
    check(UnfilledSlot.self),
    check(UnitSystem.self),
    check(UnmatchedIngredientLine.self),
    check(WeekAverage.self),
    check(WeekHousehold.self),
    check(WeekPlan.self),
    check(WhoAmI.self),
    check(WireField.self),
    check(WireShape.self),
    check(WireType.self),
]
