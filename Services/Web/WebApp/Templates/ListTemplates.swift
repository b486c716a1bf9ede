extension Templates {
    static let list = #"""
        {{<layout}}{{$content}}
        <div id="list" data-version="{{version}}" data-csrf="{{csrf}}" aria-live="polite">
        {{>list_body}}
        </div>
        <section class="card">
        <h2>Add something</h2>
        <form method="post" action="/list/items" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotencyKey" value="{{formKey}}">
        <label for="item-text">Item</label>
        <input id="item-text" name="text" required maxlength="200" placeholder="kitchen roll">
        <button type="submit">Add</button>
        </form>
        </section>
        <section class="card">
        <h2>Check out</h2>
        <form method="post" action="/list/checkout" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotencyKey" value="{{formKey}}">
        <label for="phone">Phone</label><input id="phone" name="phone" type="tel" autocomplete="tel" required>
        <label for="street">Street</label><input id="street" name="street" autocomplete="street-address" required>
        <label for="postalCode">Postal code</label><input id="postalCode" name="postalCode" autocomplete="postal-code" required>
        <label for="city">City</label><input id="city" name="city" autocomplete="address-level2" required>
        <label for="note">Note for the delivery (optional)</label><input id="note" name="note" maxlength="500">
        <button type="submit" class="primary">Place the order</button>
        </form>
        <p><a href="/list/orders">Past orders</a></p>
        </section>
        <p><a href="/pantry">Pantry</a>: what you already have is taken off the list.</p>
        {{/content}}{{/layout}}
        """#

    static let pantry = #"""
        {{<layout}}{{$content}}
        <section class="card">
        <h2>What you have</h2>
        {{#empty(items)}}<p>Nothing yet. What you add here is taken off the grocery list.</p>{{/empty(items)}}
        {{^empty(items)}}<p><a href="/recipes?filters=1&amp;pantry=1&amp;diets=1&amp;allergens=1&amp;dislikes=1&amp;equipment=1&amp;patience=1&amp;household=1">Recipes that use what you have</a>, what goes off first counting most.</p>{{/empty(items)}}
        <ul class="lines">
        {{#items}}
        <li class="line"><span class="what">{{amount}} {{name}}</span> <small>{{location}}{{#bestBefore}} · best before {{bestBefore}}{{/bestBefore}}</small>
        <form method="post" action="/pantry/remove"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><button type="submit" class="link" aria-label="Remove {{amount}} {{name}}">Remove</button></form>
        </li>
        {{/items}}
        </ul>
        </section>
        <section class="card">
        <h2>Add to the pantry</h2>
        <form method="post" action="/pantry/add" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="pantry-ingredient">Ingredient</label><input id="pantry-ingredient" name="ingredient" required maxlength="200" placeholder="potato">
        <label for="pantry-quantity">Quantity</label><input id="pantry-quantity" name="quantity" type="number" inputmode="decimal" step="any" min="0" required>
        <label for="pantry-unit">Unit (default: its usual one)</label>
        <select id="pantry-unit" name="unit"><option value="">usual</option>{{#units}}<option value="{{.}}">{{.}}</option>{{/units}}</select>
        <label for="pantry-best-before">Best before (optional)</label><input id="pantry-best-before" name="bestBefore" type="date">
        <label for="pantry-location">Where</label><input id="pantry-location" name="location" maxlength="40" list="pantry-locations" placeholder="cupboard">
        <datalist id="pantry-locations"><option value="fridge"><option value="freezer"><option value="cupboard"></datalist>
        <button type="submit" class="primary">Add</button>
        </form>
        </section>
        <section class="card">
        <h2>Staples</h2>
        <p>Always in the cupboard: recipes never put them on the list, unless you mark them out.</p>
        <ul class="lines">
        {{#staples}}
        <li class="line"><span class="what">{{name}}{{#out}} (out){{/out}}</span>
        <form method="post" action="/pantry/staple"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="ingredient" value="{{ingredient}}"><input type="hidden" name="out" value="{{^out}}1{{/out}}{{#out}}0{{/out}}"><button type="submit" class="link">{{^out}}It ran out{{/out}}{{#out}}Have it again{{/out}}</button></form>
        <form method="post" action="/pantry/staple"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="ingredient" value="{{ingredient}}"><input type="hidden" name="staple" value="0"><button type="submit" class="link" aria-label="No longer a staple: {{name}}">Not a staple</button></form>
        </li>
        {{/staples}}
        </ul>
        <form method="post" action="/pantry/staple" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="staple-ingredient">Ingredient</label><input id="staple-ingredient" name="ingredient" required maxlength="200" placeholder="salt">
        <button type="submit">Keep as a staple</button>
        </form>
        </section>
        <section class="card">
        <form method="post" action="/pantry/restock">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="on" value="{{restockNext}}">
        <p>What you buy (a checkout, or the ticked lines when you clear them after shopping) {{#restock}}goes{{/restock}}{{^restock}}does not go{{/restock}} into the pantry.
        <button type="submit">{{#restock}}Stop that{{/restock}}{{^restock}}Put it in the pantry{{/restock}}</button></p>
        </form>
        </section>
        <p><a href="/list">Back to the list</a></p>
        {{/content}}{{/layout}}
        """#

    /// The part of the list page that live updates replace.
    static let listBody = #"""
        <p class="totals" id="list-totals">{{checkedCount}} of {{lineCount}} ticked · {{total}}{{#totalByPacks}} · in packs {{totalByPacks}}{{/totalByPacks}}</p>
        {{#empty(categories)}}<p>The list is empty. Plan some meals and put the week on the list, or add an item below.</p>{{/empty(categories)}}
        {{#categories}}
        <section class="category">
        <h2>{{category}} <small>{{subtotal}}</small></h2>
        <ul class="lines">
        {{#lines}}
        <li class="line{{#checked}} checked{{/checked}}" data-line="{{id}}">
        <form method="post" action="/list/check" class="tick">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="line" value="{{id}}"><input type="hidden" name="checked" value="{{next}}">
        <button type="submit" class="tick-button" aria-pressed="{{#checked}}true{{/checked}}{{^checked}}false{{/checked}}">
        <span class="box" aria-hidden="true"></span><span class="what">{{amount}} {{name}}</span>{{#price}} <small>{{price}}</small>{{/price}}
        {{#have}}<small class="packs">{{have}}</small>{{/have}}
        {{#packs}}<small class="packs">buy {{packs}}</small>{{/packs}}
        </button>
        </form>
        {{#item}}<form method="post" action="/list/items/remove"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{item}}"><button type="submit" class="link" aria-label="Remove {{name}}">Remove</button></form>{{/item}}
        {{#fromRecipes}}<form method="post" action="/list/have"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="ingredient" value="{{ingredient}}"><button type="submit" class="link" aria-label="I have {{name}}">I have it</button></form>{{/fromRecipes}}
        </li>
        {{/lines}}
        </ul>
        </section>
        {{/categories}}
        {{^empty(recipes)}}
        <section class="card">
        <h2>For these recipes</h2>
        <ul class="rows">
        {{#recipes}}
        <li><span><a href="/recipes/{{recipe}}">{{name}}</a> × {{multiplier}}{{^empty(excluded)}} <small>(you have {{#excluded}}{{.}} {{/excluded}})</small>{{/empty(excluded)}}</span>
        <form method="post" action="/list/recipes/remove"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="recipe" value="{{recipe}}"><button type="submit" class="link" aria-label="Take {{name}} off the list">Remove</button></form>
        </li>
        {{/recipes}}
        </ul>
        </section>
        {{/empty(recipes)}}
        """#

    static let orders = #"""
        {{<layout}}{{$content}}
        {{#empty(orders)}}<p>No orders yet.</p>{{/empty(orders)}}
        {{#orders}}
        <section class="card">
        <h2>Order {{id}} · {{placed}}</h2>
        <p>{{total}} · to {{address}}</p>
        <ul>{{#lines}}<li>{{amount}} {{name}}</li>{{/lines}}</ul>
        </section>
        {{/orders}}
        {{/content}}{{/layout}}
        """#
}
