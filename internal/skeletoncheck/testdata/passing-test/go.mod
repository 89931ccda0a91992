module github.com/flk-byo/course

go 1.26
