//  Copyright (c) 2018 Couchbase, Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
// 		http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package levenshtein

import (
	"testing"
)

func TestLevenshtein2(t *testing.T) {
	dfaBuilder := withMaxStates(2)
	dfaBuilder.addState(0, 1, Exact{d: 1})
	dfaBuilder.addState(1, 0, Exact{d: 0})
	dfaBuilder.setInitialState(1)
	_ = dfaBuilder.build(1)
}
